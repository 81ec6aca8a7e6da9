-- !odd/keep.lua
return nil
