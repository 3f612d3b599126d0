"""The scan's defaults, the numbers the API and the command line share. Pure data: the command line
reads them without importing NumPy or Numba.

>>> DEFAULT_PVALUE, MAX_STORED_HITS, MAX_SLICE
(0.0001, 100000, 8)
"""
#: A window is a hit when its score reaches the motif's exact threshold of this P-value (FIMO's default).
DEFAULT_PVALUE = 1e-4
#: The hits kept by the command line by default, those of smallest P-value (FIMO's --max-stored-hits).
MAX_STORED_HITS = 100_000
#: Columns per precomputed slice of the index, lookahead and slices variants: the default and the most.
SLICE_LENGTH = 4
MAX_SLICE = 8
#: Letters per chunk of sequence: memory grows with it (about 4 MB of codes).
CHUNK_SIZE = 1 << 22
#: What the hits are written as: FIMO's TSV, BED6, GFF3.
FORMATS = ("fimo", "bed", "gff")
#: ``threshold=FILE_THRESHOLD``: each motif's own score threshold from its file (a HOMER file's).
FILE_THRESHOLD = "file"
