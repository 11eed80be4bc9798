"""Static site build: content/ + build JSON -> build/site."""
