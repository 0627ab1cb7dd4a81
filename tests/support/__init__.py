"""What several test packages share: result comparison, random collections, the ANN page's engine numbers."""
