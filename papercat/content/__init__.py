"""Reading the content folder: listings, site.yaml, topics.yaml, papers.yaml, history.yaml."""
