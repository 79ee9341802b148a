"""The simulator: the emulated dealer and the assembly of `sabot simulate` with fakes around
the real service. Imports `service`, `views`, `journal`, `game`.
"""
