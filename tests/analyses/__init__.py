"""The analyses built on the front doors: what-if, check, compare, holes and judging, online signals, ANN,
explanations, exports and the samples."""
