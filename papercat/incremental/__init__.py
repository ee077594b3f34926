"""What lets a rebuild do only the work its changes need: two concepts, one module each.

- memo.py: a memo of derived data by content hash. Each stage ("abstracts", "keyphrases", ...)
  maps the sha256 of a computation's exact inputs to its result, kept in one self-checking file
  (memo_file.py) in the cache folder between builds.
- manifest.py: a manifest of what each output file was made from. It answers "is the site already
  what these inputs make?" (then the build stops there).
"""
