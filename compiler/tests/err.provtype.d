struct s { int a; };
provider p {
	probe q(int, struct s);
};
