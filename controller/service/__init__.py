"""The service of one table: its config, the one assembly (`assembly.TableAssembly`) that
`sabot run` and `sabot simulate` share, the table thread (`pipeline`), the camera thread and
link handlers (`runtime`), recordings. Imports `game` and `journal`, and the drivers
(`vision`, `firmware_bridge`, `hardware`).
"""
