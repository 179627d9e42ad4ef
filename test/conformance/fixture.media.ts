/** Tiny binary payloads (base64) for the conformance fixture's image, audio and blob scenarios. */

/** A 1x1 red pixel, 8-bit RGB PNG. */
export const RED_PIXEL_PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC";

/** 1 ms of silence: 16-bit mono PCM WAV at 8 kHz. */
export const SILENT_WAV = "UklGRjQAAABXQVZFZm10IBAAAAABAAEAQB8AAIA+AAACABAAZGF0YRAAAAAAAAAAAAAAAAAAAAAAAAAA";
