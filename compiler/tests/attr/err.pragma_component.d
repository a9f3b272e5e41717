/* flags: -x errtags */
/* a provider has five parts: provider, module, function, name, args */
#pragma D attributes Stable/Stable/Common provider fbt probe
