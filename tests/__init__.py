"""The test suite, one package per layer of the project (see docs/layout.md); data/ holds the files the tests read."""
