/* flags: -q */
/*
 * Every variable class: globals (implicit and declared), thread-locals,
 * clause-locals across clauses of one firing, global and thread-local
 * associative arrays with integer and string keys, freeing by storing 0.
 */
int declared;
self int tl;
this int cl;
string names[int];
int pair[int, string];
self int sarr[string];

BEGIN
{
	implicit = 40;
	declared = implicit + 2;
	self->tl = 7;
	this->cl = 3;
	this->s = "clause";
	names[1] = "one";
	names[2] = "two";
	pair[1, "a"] = 10;
	pair[1, "b"] = 20;
	pair[2, "a"] = 30;
	self->sarr["x"] = 5;
	str = "global string";
}

BEGIN
{
	printf("%d %d %d %d %s\n", implicit, declared, self->tl, this->cl, this->s);
	printf("%s %s [%s]\n", names[1], names[2], names[3]);
	printf("%d %d %d %d\n", pair[1, "a"], pair[1, "b"], pair[2, "a"], pair[2, "b"]);
	printf("%d %d %s\n", self->sarr["x"], self->sarr["y"], str);
	pair[1, "a"] = 0;
	names[2] = 0;
	self->tl = 0;
	printf("%d %d [%s] %d\n", pair[1, "a"], pair[1, "b"], names[2], self->tl);
	str = "changed";
	printf("%s\n", str);
}

END
{
	/* this-> values do not outlive their firing */
	printf("end %d [%s] %d\n", this->cl, this->s, declared);
}

BEGIN
{
	exit(0);
}
