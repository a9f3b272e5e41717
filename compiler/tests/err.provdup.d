provider p {
	probe q(int);
	probe q(char *);
};
