package samplingsim

func init() {
	registerScheme(&scheme{
		name:    "none",
		doc:     "no sampling header (ground truth only)",
		bits:    "0 bits",
		hop:     func(*header, *hopEnv) {},
		receive: func(*header, *recvEnv) {},
	})
}
