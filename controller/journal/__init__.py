"""The journal: the hash-chained SQLite store, replaying it through the rules, verifying it.
Imports only `game`.
"""
