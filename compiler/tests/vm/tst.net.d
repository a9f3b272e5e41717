/* flags: -q */
/* Byte order and network addresses as DTrace writes them. */
BEGIN
{
	printf("%x %x %x %x\n", htons(0x1234), ntohs(0x3412), ntohl(0x11223344),
	    htonll(1));
	this->a = (ipaddr_t *)alloca(sizeof (ipaddr_t));
	*this->a = htonl(0xc0a80117);
	printf("%s %s\n", inet_ntoa(this->a), inet_ntop(AF_INET, this->a));
	this->b = (struct in6_addr *)alloca(sizeof (struct in6_addr));
	printf("%s\n", inet_ntop(AF_INET6, this->b));
	this->b->s6_addr[15] = 1;
	printf("%s\n", inet_ntop(AF_INET6, this->b));
	this->b->s6_addr[0] = 0xfe;
	this->b->s6_addr[1] = 0x80;
	this->b->s6_addr[10] = 0x2;
	this->b->s6_addr[11] = 0x14;
	printf("%s\n", inet_ntop(AF_INET6, this->b));
	this->b->s6_addr[0] = 0;
	this->b->s6_addr[1] = 0;
	this->b->s6_addr[10] = 0xff;
	this->b->s6_addr[11] = 0xff;
	this->b->s6_addr[12] = 127;
	printf("%s %s\n", inet_ntop(AF_INET6, this->b), inet_ntoa6(this->b));
	printf("%d %d\n", getmajor(0x800003), getminor(0x800003));
	exit(0);
}
