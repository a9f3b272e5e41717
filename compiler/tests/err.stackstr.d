BEGIN { stack("deep"); }
