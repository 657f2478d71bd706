"""Discovery: read live nodes (read-only) and write the site.yaml and site overrides that describe them."""
