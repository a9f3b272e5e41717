BEGIN { @a[execname] = count(); }
END { @a[pid] = count(); }
