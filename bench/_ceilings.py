"""The hardware ceilings that the GPU benchmarks report their fraction of, as ../shared/design/limits.md gives them
(one place, so that every table divides by the same figure).

>>> INT16X2_DPX / INT32_DPX > 1.98
True
"""

#: max-plus (or min-plus) updates a second, two int16 lanes an instruction (``__viaddmax_s16x2``, VIADDMNMX.S16):
#: measured on an H200 (132 SMs, 1.98 GHz); the H100 has the same SM count and clock
INT16X2_DPX = 30.8e12
#: the same in int32 (VIADDMNMX)
INT32_DPX = 15.5e12
#: FP64 multiply-adds a second, H100 SXM without tensor cores (the vendor's figure, not measured here)
FP64_FMA = 17e12
