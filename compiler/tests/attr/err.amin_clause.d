/* flags: -x amin=Evolving/Evolving/Common */
/* The probe description first: syscall's function names are Private. */
syscall::read:entry
{
	trace(timestamp);
}
