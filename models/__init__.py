"""Data, tokenizer, the three nets and the training protocol of the course."""
