BEGIN { @s[ustack(5)] = count(); }
END { @s[ustack(6)] = count(); }
