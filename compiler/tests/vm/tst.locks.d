/* flags: -q */
/*
 * The lock subroutines decode Linux 6.1's lock words (the host VM reads
 * them at offset 0 of scratch, where struct mutex keeps its owner and
 * struct rw_semaphore its count): a mutex's owner is the word less its
 * three flag bits; an rwsem is write-held at bit 0, has waiters at bit 1
 * and counts readers from bit 8 below bit 63 (READFAIL).  A bad address
 * fires ERROR with it, for each of the seven.
 */
BEGIN
{
	w = (uint64_t *)alloca(8);

	*w = 0xffff888012345687;	/* owned, every flag set */
	printf("owned %d owner %x adaptive %d spin %d\n", mutex_owned(w),
	    (uint64_t)mutex_owner(w), mutex_type_adaptive(w), mutex_type_spin(w));
	*w = 0x5;			/* flags without an owner: unlocked */
	printf("owned %d owner %x\n", mutex_owned(w), (uint64_t)mutex_owner(w));
	*w = 0;
	printf("owned %d owner %x adaptive %d spin %d\n", mutex_owned(w),
	    (uint64_t)mutex_owner(w), mutex_type_adaptive(w), mutex_type_spin(w));
	*w = 0x300;			/* three readers */
	printf("read %d write %d writer %d\n", rw_read_held(w), rw_write_held(w), rw_iswriter(w));
	*w = 0x102;			/* a reader, a writer waiting */
	printf("read %d write %d writer %d\n", rw_read_held(w), rw_write_held(w), rw_iswriter(w));
	*w = 0x101;			/* a writer; a reader's bias in flight */
	printf("read %d write %d writer %d\n", rw_read_held(w), rw_write_held(w), rw_iswriter(w));
	*w = 0x8000000000000000;	/* READFAIL alone: no reader */
	printf("read %d write %d writer %d\n", rw_read_held(w), rw_write_held(w), rw_iswriter(w));
	*w = 0;
	printf("read %d write %d writer %d\n", rw_read_held(w), rw_write_held(w), rw_iswriter(w));
	/* an integer (arg0, a cast address) is the address it holds */
	*w = 0x1000;
	printf("int %d\n", mutex_owned((uint64_t)w));
}

BEGIN { mutex_owned(0); }
BEGIN { mutex_owner(8); }
BEGIN { mutex_type_adaptive(16); }
BEGIN { mutex_type_spin(24); }
BEGIN { rw_read_held(32); }
BEGIN { rw_write_held(40); }
BEGIN { rw_iswriter(48); }

ERROR
{
	printf("ERROR: fault %d addr %d\n", arg4, arg5);
}
