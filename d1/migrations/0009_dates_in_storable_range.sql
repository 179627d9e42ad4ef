-- Dates are limited to 0000-01-01T00:00:00.000Z … 9999-12-31T23:59:59.999Z (workers/lib/clock.ts).
-- Rows stored before that limit may hold the extended-year text JavaScript writes past it
-- ('+010000-…', '-000001-…'); compared as text those sort before every ordinary date. Clamp them
-- to the nearest end of the range, so every comparison agrees with the calendar again.
UPDATE tasks SET due_date = '9999-12-31T23:59:59.999Z' WHERE due_date LIKE '+%';
--> statement-breakpoint
UPDATE tasks SET due_date = '0000-01-01T00:00:00.000Z' WHERE due_date LIKE '-%';
--> statement-breakpoint
UPDATE reminders SET remind_at = '9999-12-31T23:59:59.999Z' WHERE remind_at LIKE '+%';
--> statement-breakpoint
UPDATE reminders SET remind_at = '0000-01-01T00:00:00.000Z' WHERE remind_at LIKE '-%';
