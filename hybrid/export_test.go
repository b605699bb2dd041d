package hybrid

// Syncs is how many switches to the SARDONICS component flipped the
// differing bits and how many used a Reset, and how many switches to the
// Metropolis component used a Reset, since the chain was built.
func (c *Chain) Syncs() (sawFlip, sawReset, metroReset int64) {
	return c.nFlip[sard], c.nReset[sard], c.nReset[metro]
}
