"""Results bundles in and out: `importer` writes a document into the database, `export` reads one out."""
