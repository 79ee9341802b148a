"""`sabot monitor`: the surveillance room's web page of every table, live from the broker,
with the five roads and each shoe's history."""
