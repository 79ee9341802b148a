"""What people read: the text of `sabot deal`, the live view, the HTML report. Imports `game`
and `journal`.
"""
