"""Reading qrels and runs: TREC text (:mod:`metrics.io.trec`), JSON (:mod:`metrics.io.json`), and DataFrames, Arrow
tables and Parquet files (:mod:`metrics.io.frames`), each into the columns the bulk path evaluates."""
