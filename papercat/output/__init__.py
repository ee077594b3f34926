"""Writing the site: staged beside the old one, then swapped in as a whole."""
