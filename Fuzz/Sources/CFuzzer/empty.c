// (headers only)
