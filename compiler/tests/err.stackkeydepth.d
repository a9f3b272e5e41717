BEGIN { @s[stack(5)] = count(); }
END { @s[stack(6)] = count(); }
