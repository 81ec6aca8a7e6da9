return 1


