provider p {
	probe q(int) : (int, int);
};
