BEGIN { @s[stack()] = count(); }
END { @s[execname] = count(); }
