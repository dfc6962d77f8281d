"""One module per source format; each turns bytes or text into a `Document`."""
