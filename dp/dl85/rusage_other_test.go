//go:build !linux

package dl85

func dl85ResetPeakRSS() bool { return false }
func dl85PeakRSSMB() float64 { return -1 }
