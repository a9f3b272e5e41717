BEGIN { pcap(0, 0); }
