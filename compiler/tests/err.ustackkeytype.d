BEGIN { @s[stack(5)] = count(); }
END { @s[ustack(5)] = count(); }
