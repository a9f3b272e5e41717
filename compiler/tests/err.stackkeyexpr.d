BEGIN { @[stack() + 1] = count(); }
