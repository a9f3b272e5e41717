BEGIN { @[ufunc(1, 2)] = count(); }
