-- src/skip/s.lua
return nil
