"""The engine: the data model, conventions, measures, the batch engine, the front doors and the main command line."""
