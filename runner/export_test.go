package runner

// SlotConfig exposes slotConfig to the external tests.
var SlotConfig = slotConfig
