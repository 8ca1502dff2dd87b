// A business rule on top of the generated stores, without SQL: a vet is never booked twice at
// the same time. The clinic's declaration is fixtures/valid/clinic/declaration.yaml; this file
// runs in test/http/action-store.test.ts on the in-memory store, PGlite and PostgreSQL.
import type { Handlers, HandlerRefusal, Store } from "../../fixtures/valid/clinic/expected/index.gen.js";

/** The refusal of a slot the vet already has (409, which `create` and `reschedule` declare). */
function taken(vet: string, startsAt: string): HandlerRefusal<409> {
  return { status: 409, error: "Conflict", detail: { startsAt: `${vet} already has an appointment at ${startsAt}` } };
}

/**
 * The clinic's handlers: the generated ones (`handlers`, over `store`), with booking and
 * rescheduling checking the vet's slot and writing in one transaction, so of two requests for
 * one slot exactly one wins, whichever store and however many server instances.
 */
export function clinicHandlers(store: Store, handlers: Handlers): Handlers {
  return {
    ...handlers,
    appointments: {
      ...handlers.appointments,
      createAppointment: ({ body, signal }) =>
        store.transaction(
          async (tx) => {
            const booked = await tx.appointments.list({ where: { vet: body.vet, startsAt: body.startsAt, status: "booked" }, signal });
            if (booked.length > 0) return taken(body.vet, body.startsAt);
            return tx.appointments.create(body, { signal });
          },
          { signal },
        ),
      rescheduleAppointment: ({ id, body, current, ifMatch, signal }) =>
        store.transaction(
          async (tx) => {
            const booked = await tx.appointments.list({ where: { vet: current.vet, startsAt: body.startsAt, status: "booked" }, signal });
            if (booked.some((appointment) => appointment.id !== id)) return taken(current.vet, body.startsAt);
            // `notify` is the handler's alone; `startsAt` is stored, as the generated handler would.
            if (body.notify === true) console.log(`tell the owner of pet ${current.petId}: the appointment moved to ${body.startsAt}`);
            return tx.appointments.update(id, { startsAt: body.startsAt }, { signal, ...(ifMatch === undefined ? {} : { ifMatch }) });
          },
          { signal },
        ),
    },
  };
}
