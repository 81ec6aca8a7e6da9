-- !odd/drop.lua
return nil
