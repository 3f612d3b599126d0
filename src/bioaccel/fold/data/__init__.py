"""Data files of the fold wing, shipped as package data: ``rna_turner2004.par``, the Turner 2004
parameter set in ViennaRNA's format (read by bioaccel.fold._turner_params)."""
