provider p {
	probe q(int);
};

#pragma D attributes Evolving/Evolving/Common provider p provider
#pragma D attributes Evolving/Evolving/Common provider r args
