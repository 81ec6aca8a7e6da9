-- src/keep/k.lua
return nil
