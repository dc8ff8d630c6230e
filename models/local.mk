# models/local.mk -- the run model and its accounting.
