import {
  getOrder,
  listOrderPage,
  listOrders,
  placeOrder,
  updateOrder,
} from '../../../operations/orders.js';
import { router } from '../init.js';
import { proceduresOf } from '../procedures.js';

/** The store's orders under their tRPC names (`orders.place`, ...); beta. */
export const orderOperations = {
  list: listOrders,
  listPage: listOrderPage,
  place: placeOrder,
  get: getOrder,
  update: updateOrder,
};

export const ordersRouter = router(proceduresOf(orderOperations));
