/* flags: -q -x strsize=16 */
/*
 * With strsize 16, every subroutine that makes a string cuts a longer
 * result to 15 characters and its NUL, without a fault (illumos faults
 * "out of scratch space" in strjoin(); xdt cuts, as Oracle's DTrace for
 * Linux does).  The arguments themselves are read as strings of strsize.
 */
BEGIN
{
	j = strjoin("abcdefghij", "klmnopqrstuv");
	printf("strjoin   %s %d\n", j, strlen(j));
	j = strjoin(j, "xyz");
	printf("strjoin   %s %d\n", j, strlen(j));
	j = strjoin("abcdefghijklmno", "");
	printf("strjoin   %s %d\n", j, strlen(j));
	j = strjoin("abc", "def");
	printf("strjoin   %s %d\n", j, strlen(j));
	j = substr("0123456789abcdefghij", 0);
	printf("substr    %s %d\n", j, strlen(j));
	j = substr("0123456789abcdefghij", 3, 40);
	printf("substr    %s %d\n", j, strlen(j));
	j = lltostr(-1, 2);
	printf("lltostr   %s %d\n", j, strlen(j));
	j = lltostr(0x123456789abcdef0, 16);
	printf("lltostr   %s %d\n", j, strlen(j));
	j = lltostr(-1234567890123456789);
	printf("lltostr   %s %d\n", j, strlen(j));
	j = toupper("abcdefghijklmnopqrst");
	printf("toupper   %s %d\n", j, strlen(j));
	j = tolower("ABCDEFGHIJKLMNOPQRST");
	printf("tolower   %s %d\n", j, strlen(j));
	j = strtok("abcdefghijklmnopqrst,uvw", ",");
	printf("strtok    %s %d\n", j, strlen(j));
	j = basename("/abcdefghijklmnopqrst");
	printf("basename  %s %d\n", j, strlen(j));
	j = dirname("/abcdefgh/ijklmnopqrst");
	printf("dirname   %s %d\n", j, strlen(j));
	j = cleanpath("/abcdefghijklmnopqrst");
	printf("cleanpath %s %d\n", j, strlen(j));
	this->b = (struct in6_addr *)alloca(sizeof (struct in6_addr));
	this->b->s6_addr[0] = 0x12;
	this->b->s6_addr[1] = 0x34;
	this->b->s6_addr[3] = 0x56;
	this->b->s6_addr[5] = 0x78;
	this->b->s6_addr[9] = 0x9a;
	this->b->s6_addr[15] = 0xbc;
	j = inet_ntop(AF_INET6, this->b);
	printf("inet_ntop %s %d\n", j, strlen(j));
	j = inet_ntoa6(this->b);
	printf("ntoa6     %s %d\n", j, strlen(j));
	this->a = (ipaddr_t *)alloca(sizeof (ipaddr_t));
	*this->a = htonl(0xc0a80117);
	j = inet_ntoa(this->a);
	printf("inet_ntoa %s %d\n", j, strlen(j));
	exit(0);
}
