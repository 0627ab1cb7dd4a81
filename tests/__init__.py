"""The test suite, one package per layer of the project (see README's Layout); data/ holds the files the tests read."""
