"""Reading and writing: TREC, JSON, Parquet and tables, their limits, refusals and messages."""
