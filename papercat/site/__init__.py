"""The site's files: which pages exist, their templates' context, feeds, sitemaps, the data files."""
