BEGIN { @a = count(); }
END   { @a = sum(arg0); }
