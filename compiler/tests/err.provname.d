provider p2 {
	probe q(int);
};
